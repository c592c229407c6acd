"""Hostile inputs: XXE, entity bombs, truncated files, wrong encodings, junk."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest

import corefio
from corefio.errors import FormatError, UnsafeInputError
from corefio.io.files import read_text
from corefio.io.xmlsafe import parse_xml

SECRET = "TOP-SECRET-CONTENT-42"


def raf_with(doctype: str, word_form: str) -> bytes:
    return (
        f'<?xml version="1.0"?>\n{doctype}\n'
        '<struct type="reference_annotation_collection"><struct type="document" name="d">'
        '<struct type="primary_data"><struct type="word" id="w1">'
        f'<feat type="form">{word_form}</feat></struct></struct></struct></struct>'
    ).encode()


def test_xxe_does_not_read_local_files(tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    evil = tmp_path / "evil.raf.xml"
    evil.write_bytes(raf_with(
        f'<!DOCTYPE struct [<!ENTITY xxe SYSTEM "file://{secret}">]>', "&xxe;"))
    with pytest.raises(UnsafeInputError) as info:
        corefio.read(evil)
    assert SECRET not in str(info.value)
    assert "entity" in str(info.value).lower()


def test_xxe_behind_the_early_check_is_still_refused(tmp_path: Path):
    # the DOCTYPE starts after 64 KiB of comment: libxml2 parses it, the DTD check refuses
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    padding = "<!--" + "x" * 70000 + "-->"
    data = (f'<?xml version="1.0"?>\n{padding}\n<!DOCTYPE struct [<!ENTITY xxe SYSTEM "file://{secret}">]>\n'
            '<struct type="reference_annotation_collection"/>').encode()
    with pytest.raises(UnsafeInputError) as info:
        parse_xml(data)
    assert SECRET not in str(info.value)


def test_billion_laughs_fails_fast_and_small():
    lol = ['<!ENTITY lol "lol">']
    for i in range(1, 10):
        prev = f"&lol{i - 1};" if i > 1 else "&lol;"
        lol.append(f'<!ENTITY lol{i} "{prev * 10}">')
    data = raf_with("<!DOCTYPE struct [" + "".join(lol) + "]>", "&lol9;")
    tracemalloc.start()
    start = time.perf_counter()
    with pytest.raises(UnsafeInputError):
        corefio.formats.raf.loads(data)
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert elapsed < 1.0
    assert peak < 5_000_000


def test_quadratic_blowup_is_refused():
    data = raf_with('<!DOCTYPE struct [<!ENTITY a "' + "x" * 50000 + '">]>', "&a;" * 1000)
    with pytest.raises(UnsafeInputError):
        parse_xml(data)


def test_external_dtd_is_not_fetched():
    # a SYSTEM DTD is ignored, never loaded (no network, no file access)
    data = raf_with('<!DOCTYPE struct SYSTEM "http://127.0.0.1:9/never.dtd">', "ok")
    corpus = corefio.formats.raf.loads(data)
    assert corpus.documents[0].tokens.forms == ["ok"]


def test_local_system_dtd_is_not_loaded(tmp_path: Path):
    dtd = tmp_path / "evil.dtd"
    dtd.write_text(f'<!ENTITY secret "{SECRET}">')
    data = raf_with(f'<!DOCTYPE struct SYSTEM "{dtd}">', "&secret;")
    try:
        corpus = corefio.formats.raf.loads(data)
    except FormatError as exc:  # undefined entity: fine, as long as nothing leaked
        assert SECRET not in str(exc)
    else:
        assert SECRET not in corpus.documents[0].tokens.forms[0]


def test_truncated_xml_names_the_line(tmp_path: Path):
    good = (Path(__file__).parent / "data" / "golden" / "features.raf.xml").read_bytes()
    cut = tmp_path / "cut.raf.xml"
    cut.write_bytes(good[: len(good) // 2])
    with pytest.raises(FormatError) as info:
        corefio.read(cut)
    assert info.value.line is not None and info.value.file == str(cut)
    assert "not well-formed" in str(info.value)


def test_wrong_encoding_names_line_and_column(tmp_path: Path):
    path = tmp_path / "latin1.conll"
    path.write_bytes("#begin document (d); part 000\nd\t0\t0\tcaf\xe9\t(0)\n#end document\n".encode("latin-1"))
    with pytest.raises(FormatError) as info:
        read_text(path)
    assert (info.value.line, info.value.column) == (2, 10)
    assert "UTF-8" in str(info.value)


def test_utf16_is_refused_with_advice(tmp_path: Path):
    path = tmp_path / "u16.conll"
    path.write_bytes("#begin document (d)\n".encode("utf-16"))
    with pytest.raises(FormatError, match="UTF-16"):
        read_text(path)


def test_xml_in_latin1_declared_as_utf8_is_an_error(tmp_path: Path):
    path = tmp_path / "bad.raf.xml"
    path.write_bytes(raf_with("", "caf\xe9".encode("latin-1").decode("latin-1")).replace("é".encode(), b"\xe9"))
    with pytest.raises(FormatError):
        corefio.read(path)


def test_binary_junk_is_an_error(tmp_path: Path):
    path = tmp_path / "junk.raf.xml"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(FormatError):
        corefio.read(path)


def test_directory_is_not_a_file(tmp_path: Path):
    with pytest.raises(FormatError, match="directory"):
        read_text(tmp_path)
