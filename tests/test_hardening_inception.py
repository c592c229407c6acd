"""Hardening reproducers of the INCEpTION formats and of zip reading (R04, R05, R06, R10,
R11 of ``shared/reproducers``): each is a located input error or a kept round trip, and a
hostile zip is refused before it is unpacked, in the command line and in the web.

Memory and work are measured by counting (bytes unpacked, central directory records and
zipfile archives parsed) and by ``tracemalloc``; no test asserts a time.
"""

from __future__ import annotations

import io
import struct
import tracemalloc
import warnings
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

import corefio
from corefio.cli import app
from corefio.errors import FormatError
from corefio.io import archive

from .conftest import DATA

REGRESSIONS = DATA / "regressions"
#: what refusing a hostile zip may allocate (the reproducers reached 0.2 to 1.1 GB)
MEGABYTES = 100


def run(*args: str):
    return CliRunner().invoke(app, list(args))


# -- R04: a 5,000-digit offset ----------------------------------------------------------------------
def test_R04_webanno_huge_offset_is_a_located_input_error():
    path = REGRESSIONS / "R04_webanno_huge_offset" / "huge_offset.tsv"
    with pytest.raises(FormatError) as caught:
        corefio.read(path)
    assert caught.value.line == 8 and "more than 18 digits" in caught.value.message
    assert run("info", str(path)).exit_code == 3
    result = run("validate", str(path))
    assert result.exit_code == 4 and "internal error" not in result.output


def test_R04_webanno_huge_ids_are_written_without_a_crash():
    """The writer's side of R04: markable ids and chain numbers of 5,000 digits."""
    huge = "1" * 5000
    doc = corefio.Document(name="d", tokens={"forms": ["Kim", "left", "."]},
                           markables=[{"id": huge, "spans": ((0, 0),), "entity": "e"},
                                      {"id": f"m{huge}-1", "spans": ((1, 1),), "entity": "e"}])
    text = corefio.dumps(doc, "webanno-tsv")
    assert huge not in text
    back = corefio.loads(text, "webanno-tsv").documents[0]
    assert [len(c) for c in back.chains()] == [2]
    chained = doc.copy(layout={"webanno-tsv": corefio.read(DATA / "wild" / "inception" / "tsv3-suite" /
                                                            "testSimpleChain" / "reference.tsv")
                               .documents[0].layout["webanno-tsv"]})
    assert huge not in corefio.dumps(chained, "webanno-tsv")


# -- R05: round trips that merged annotations or broke the column count -----------------------------
def test_R05_webanno_roundtrip_keeps_08_and_8_apart():
    path = REGRESSIONS / "R05_webanno_roundtrip" / "rt_changed.tsv"
    doc = corefio.read(path).documents[0]
    assert sorted(m.id for m in doc.markables) == ["08", "8"]
    text = corefio.dumps(doc, "webanno-tsv")
    back = corefio.loads(text, "webanno-tsv").documents[0]
    assert len(back.markables) == 2 and [m.spans for m in back.markables] == [m.spans for m in doc.markables]
    assert len(set(m.id for m in back.markables)) == 2


def test_R05_webanno_roundtrip_writes_the_columns_its_header_declares():
    path = REGRESSIONS / "R05_webanno_roundtrip" / "rt_columns.tsv"
    doc = corefio.read(path).documents[0]
    text = corefio.dumps(doc, "webanno-tsv")
    back = corefio.loads(text, "webanno-tsv").documents[0]  # 6 columns, as declared
    assert back.tokens.attributes == doc.tokens.attributes and back.tokens.forms == doc.tokens.forms


@pytest.mark.parametrize("features", [[], ["type"], ["type", "note"]], ids=["governor-only", "type", "type+note"])
def test_R05_relation_layers_of_every_width_round_trip(features):
    """A relation layer with only its ``BT_`` column (INCEpTION's feature-less relation),
    a type column, or more: read and written with the columns the header declares."""
    header = "|".join(features + ["BT_webanno.custom.Span"])
    values = {"type": "coref", "note": "n\\|1"}
    cells = [values[f] for f in features]
    text = ("#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Span|value\n"
            f"#T_RL=webanno.custom.Relation|{header}\n\n\n#Text=Kim said she left .\n"
            "1-1\t0-3\tKim\t*[1]\t" + "\t".join(["_"] * len(features) + ["_"]) + "\t\n"
            "1-2\t4-8\tsaid\t_\t" + "\t".join(["_"] * (len(features) + 1)) + "\t\n"
            "1-3\t9-12\tshe\t*[2]\t" + "\t".join(cells + ["1-1[1_2]"]) + "\t\n"
            "1-4\t13-17\tleft\t_\t" + "\t".join(["_"] * (len(features) + 1)) + "\t\n"
            "1-5\t18-19\t.\t_\t" + "\t".join(["_"] * (len(features) + 1)) + "\t\n")
    corpus = corefio.loads(text, "webanno-tsv")
    doc = corpus.documents[0]
    assert len(doc.links) == 1 and doc.links[0].source == "1" and doc.links[0].targets == ("2",)
    assert doc.links[0].type == ("coreference" if features else "relation")
    if "note" in features:
        assert doc.links[0].attributes["note"] == "n|1"
    assert corefio.dumps(corpus, "webanno-tsv") == text


# -- R06: a zip entry needing an unknown zip version -------------------------------------------------
def test_R06_xmi_zip_version_is_a_located_input_error():
    path = REGRESSIONS / "R06_xmi_zip_version" / "bad_version.zip"
    with pytest.raises(FormatError) as caught:
        corefio.read(path, "xmi")
    assert caught.value.file == str(path) and "zip version 14.8" in caught.value.message
    result = run("info", str(path))
    assert result.exit_code == 3 and "internal error" not in result.output
    assert run("validate", str(path)).exit_code == 4


def test_R06_xmi_zip_version_is_a_4xx_on_the_web():
    pytest.importorskip("fastapi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from corefio.web import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    data = (REGRESSIONS / "R06_xmi_zip_version" / "bad_version.zip").read_bytes()
    for route, form in (("/api/convert", {"to": "conll"}), ("/api/validate", {})):
        answer = client.post(route, files={"file": ("bad_version.zip", data)}, data=form)
        assert answer.status_code == 422, (route, answer.text)
        assert "zip version 14.8" in answer.json()["message"]


# -- R10 and R11: hostile zips refused before anything is unpacked -----------------------------------
def spaces_bomb(megabytes: int, declared: int | None = None) -> bytes:
    """R10's shape: one deflated ``doc.xmi``, an XMI start tag and ``megabytes`` MB of
    spaces; ``declared``: the uncompressed size its headers claim instead (a size
    header that lies)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        info = zipfile.ZipInfo("doc.xmi", date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        with z.open(info, "w") as w:
            w.write(b'<?xml version="1.0"?><xmi:XMI xmlns:xmi="http://www.omg.org/XMI" xmi:version="2.0">')
            for _ in range(megabytes):
                w.write(b" " * (1 << 20))
    data = bytearray(buffer.getvalue())
    if declared is not None:
        local = data.find(b"PK\x03\x04")
        data[local + 22:local + 26] = struct.pack("<I", declared)
        central = data.rfind(b"PK\x01\x02")
        data[central + 24:central + 28] = struct.pack("<I", declared)
    return bytes(data)


def lying_count(entries: int, suffix: str = ".xmi", name_length: int = 1) -> bytes:
    """R11's shape: ``entries`` empty entries whose end record says there is 1."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as z:
        for i in range(entries):
            z.writestr(zipfile.ZipInfo(f"{i:0{name_length}d}{suffix}", date_time=(1980, 1, 1, 0, 0, 0)), b"")
    data = bytearray(buffer.getvalue())
    end = data.rfind(b"PK\x05\x06")
    data[end + 8:end + 12] = struct.pack("<HH", 1, 1)
    return bytes(data)


class Counted:
    """Counts what zip reading does while it runs: zipfile archives parsed, entries
    opened, bytes unpacked."""

    def __init__(self, monkeypatch) -> None:
        self.archives = self.opened = self.unpacked = 0
        counter = self
        real_init, real_open = zipfile.ZipFile.__init__, zipfile.ZipFile.open

        def init(self, *args, **kwargs):
            counter.archives += 1
            return real_init(self, *args, **kwargs)

        def open_(self, name, mode="r", *args, **kwargs):
            member = real_open(self, name, mode, *args, **kwargs)
            if mode == "r":
                counter.opened += 1
                read = member.read

                def counted_read(n=-1):
                    chunk = read(n)
                    counter.unpacked += len(chunk)
                    return chunk

                member.read = counted_read
            return member

        monkeypatch.setattr(zipfile.ZipFile, "__init__", init)
        monkeypatch.setattr(zipfile.ZipFile, "open", open_)


HOSTILE = {
    "R10_xmi_zip_bomb_cli": lambda: spaces_bomb(60),
    "R10_xmi_zip_bomb_cli-lying-size": lambda: spaces_bomb(40, declared=1024),
    "R11_zip_entry_count_lie": lambda: lying_count(30_000),
    "R11_zip_entry_count_lie-long-names": lambda: lying_count(12_000, name_length=900),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    paths = {}
    for name, build in HOSTILE.items():
        paths[name] = folder / f"{name}.zip"
        paths[name].write_bytes(build())
    return paths


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_zips_are_refused_in_the_cli_before_unpacking(case, hostile, monkeypatch):
    counted = Counted(monkeypatch)
    tracemalloc.start()
    try:
        result = run("info", "--from", "xmi", str(hostile[case]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code == 3, result.output
    assert "internal error" not in result.output
    assert peak < MEGABYTES * 2**20, f"{peak / 2**20:.0f} MB"
    if case.startswith("R11"):
        # the lie is found while walking the directory: zipfile never parses it
        assert counted.archives == 0 and "entries" in result.output
    elif case.endswith("lying-size"):
        # the header says 1 KB: unpacking stops at the declared size (zipfile's CRC check fails)
        assert counted.unpacked <= 1024 + archive.CHUNK and "cannot be extracted" in result.output
    else:
        assert counted.opened == 0 and "zip bomb" in result.output


def test_R11_zip_entry_count_lie_walk_stops_after_the_limit(monkeypatch):
    """Entries are counted as they are read: the walk reads 10,001 records, not 30,000."""
    data = lying_count(30_000)
    seen = []
    real = struct.unpack_from

    def counting(fmt, buffer, offset=0):
        if fmt == "<xxxxxxBxHH16xHHH":
            seen.append(offset)
        return real(fmt, buffer, offset)

    monkeypatch.setattr(archive.struct, "unpack_from", counting)
    with pytest.raises(archive.ZipRefused) as caught:
        archive.open_zip(data, shown="many.zip")
    assert caught.value.too_large and "more than 10000 entries" in caught.value.message
    assert len(seen) == archive.CLI_LIMITS.entries + 1


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_zips_are_refused_by_the_web_with_a_4xx(case, hostile):
    pytest.importorskip("fastapi")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from corefio.web import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    data = hostile[case].read_bytes()
    tracemalloc.start()
    try:
        answer = client.post("/api/convert", files={"file": (f"{case}.zip", data)}, data={"to": "conll"})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer.status_code in (413, 422), answer.text
    assert peak < MEGABYTES * 2**20


def test_R10_three_thousand_small_documents_are_not_hostile(tmp_path):
    """R10's last line: a zip of 3,000 small documents is data, not an attack: read whole."""
    doc = corefio.Document(name="d", tokens={"forms": ["Kim", "left"]},
                           markables=[{"id": "m1", "spans": ((0, 0),)}])
    corpus = corefio.Corpus(documents=[doc.copy(name=f"d{k}") for k in range(300)])
    path = tmp_path / "many.zip"
    corefio.write(corpus, path, "xmi")
    assert len(corefio.read(path).documents) == 300


# -- the archive module's own checks ------------------------------------------------------------------
def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


@pytest.mark.parametrize(("members", "words"), [
    ({"../evil.xmi": b"x"}, "climbs out"),
    ({"/abs.xmi": b"x"}, "absolute path"),
    ({"a.xmi": b"x", "a.xmi/b": b"y"}, "both as a file and as a folder"),
    ({"d/" * 40 + "x.xmi": b"x"}, "nests folders"),
], ids=["dotdot", "absolute", "file-and-folder", "deep"])
def test_unsafe_names_are_refused_by_every_reader(members, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate-looking names
        data = zip_of(members)
    for fmt in ("xmi", "webanno-tsv"):
        with pytest.raises(FormatError, match=words):
            corefio.loads(data, fmt)


def test_entries_sharing_their_data_are_refused():
    """The overlapping kind of bomb: two central records pointing to one local entry."""
    data = bytearray(zip_of({"a.xmi": b"<x/>" * 1000}))
    end = data.rfind(b"PK\x05\x06")
    central = data.rfind(b"PK\x01\x02")
    record = bytes(data[central:end])
    second = record.replace(b"a.xmi", b"b.xmi")
    data[end:end] = second
    end += len(second)
    data[end + 8:end + 16] = struct.pack("<HHL", 2, 2, len(record) * 2)
    with pytest.raises(archive.ZipRefused, match="share|more compressed bytes"):
        archive.open_zip(bytes(data))


def test_an_encrypted_entry_is_refused():
    data = bytearray(zip_of({"a.xmi": b"<x/>"}))
    central = data.rfind(b"PK\x01\x02")
    data[central + 8] |= 1
    with pytest.raises(archive.ZipRefused, match="encrypted"):
        archive.open_zip(bytes(data))
