"""The repair library: each fixer alone, whole repairs, encodings, repair_file, and the
character-data guarantee on randomly damaged well-formed files (property test)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given
from hypothesis import strategies as st
from lxml import etree

from corefio.io import repair
from corefio.errors import FormatError, OutputError, StrictModeError
from corefio.io.repair import character_data, lex, render

from .conftest import SAMPLES, campaign


def run(fixer, text, **kw):
    tokens = lex(text)
    changes = fixer(tokens, **kw)
    return render(tokens), changes


def where(changes):
    return [(c.line, c.column) for c in changes]


def parses(text: str) -> bool:
    etree.fromstring(text.encode("utf-8"), etree.XMLParser(resolve_entities=False, no_network=True))
    return True


# -- the lexer -------------------------------------------------------------------------------
def test_lex_renders_back_unchanged_and_locates():
    text = '<a x=1 y="2">t &MD; & <!-- c --><b/>\n  <![CDATA[<z>]]><?pi x?> < </a>'
    tokens = lex(text)
    assert render(tokens) == text
    kinds = [t.kind for t in tokens]
    assert kinds == ["tag", "text", "ref", "text", "amp", "text", "comment", "tag", "text", "cdata", "pi", "text",
                     "lt", "text", "tag"]
    cdata = tokens[9]
    assert (cdata.line, cdata.column) == (2, 3)
    assert tokens[0].attr("X") == "1" and tokens[0].attr("y") == "2"


def test_character_data_counts_entities_by_name_and_decodes_predefined():
    assert character_data('<a k="v">x &amp; &MD; &#65;&#x42; & <![CDATA[<c>]]></a>') == "x & &MD; AB & <c>"


# -- each fixer alone --------------------------------------------------------------------------
def test_attribute_case():
    out, changes = run(repair.fix_attribute_case, '<C id="1">a</C>\n<C ID="2">b</C>')
    assert out == '<C id="1">a</C>\n<C id="2">b</C>'
    assert where(changes) == [(2, 1)] and "spelled id" in changes[0].message


def test_attribute_quotes():
    out, changes = run(repair.fix_attribute_quotes, "<STORYID cat=w pri=u opt>x</STORYID>\n <q v=a/b>")
    assert out == '<STORYID cat="w" pri="u" opt="opt">x</STORYID>\n <q v="a/b">'
    assert where(changes) == [(1, 1)] * 3 + [(2, 2)]


def test_duplicate_attributes():
    out, changes = run(repair.fix_duplicate_attributes, '<a x="1" x="2">t</a>')
    assert out == '<a x="1">t</a>' and len(changes) == 1


def test_entities_are_mapped_and_listed():
    mapped: set[str] = set()
    out, changes = run(repair.fix_entities, '<p MIN="AT&AMP;T & co">a &MD; &amp; &#65; b</p>', mapped=mapped)
    assert out == '<p MIN="AT&amp;AMP;T &amp; co">a &amp;MD; &amp; &#65; b</p>'
    assert mapped == {"AMP", "MD"}
    assert where(changes) == [(1, 1), (1, 26)]


def test_entities_declared_instead():
    text = '<DOC><p MIN="AT&AMP;T">a &MD; b &MD;</p></DOC>\n<DOC>&QL;</DOC>'
    fixed, changes = repair.repair_text(text, entities="declare")
    assert fixed.startswith('<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE corefio-root [<!ENTITY AMP '
                            '"&#38;#38;AMP;"><!ENTITY MD "&#38;#38;MD;"><!ENTITY QL "&#38;#38;QL;">]><corefio-root>')
    assert [c.message for c in changes if c.fixer == "entities"] == ["entity &MD; declared", "entity &QL; declared"]
    root = etree.fromstring(fixed.encode())  # an XML parser that expands entities gets their names back
    assert "".join(root.itertext()) == "a &MD; b &MD;\n&QL;"
    assert root.find(".//p").get("MIN") == "AT&AMP;T"
    assert repair.repair_text(fixed, entities="declare") == (fixed, [])
    assert repair.restore_sgml(fixed) == text
    with pytest.raises(ValueError):
        repair.repair_text(text, entities="expand")


def test_stray_ampersand_and_less_than():
    out, changes = run(repair.fix_stray_markup_characters, "<a>R & D < 3</a>")
    assert out == "<a>R &amp; D &lt; 3</a>"
    assert where(changes) == [(1, 6), (1, 10)]


def test_nesting_unclosed_paragraphs_are_closed():
    out, changes = run(repair.fix_nesting, "<TEXT>\n<p>one\n<p>two\n</TEXT>")
    assert out == "<TEXT>\n<p>one\n</p><p>two\n</p></TEXT>"
    assert where(changes) == [(3, 1), (4, 1)]
    assert "before the next <p>" in changes[0].message


def test_nesting_close_and_reopen():
    out, changes = run(repair.fix_nesting, "<b>x<i>y</b>z</i>")
    assert out == "<b>x<i>y</i></b><i>z</i>"
    assert "reopened" in changes[0].message and where(changes) == [(1, 9)]


def test_nesting_element_with_id_is_closed_early():
    out, changes = run(repair.fix_nesting, '<p>a <COREF ID="1">b</p> c</COREF>')
    assert out == '<p>a <COREF ID="1">b</COREF></p> c'
    assert [c.message.split(":")[0] for c in changes][1] == "dropped </COREF>"
    assert where(changes) == [(1, 21), (1, 27)]


def test_nesting_stray_end_tag_dropped_and_case():
    out, changes = run(repair.fix_nesting, "<COREF>x</coref></i><a>")
    assert out == "<COREF>x</COREF><a></a>"
    assert [c.message for c in changes][:2] == ["end tag </coref> spelled </COREF> like its start tag",
                                                "dropped stray end tag </i>"]
    assert "at the end" in changes[2].message


def test_nesting_can_keep_omitted_end_tags():
    out, changes = run(repair.fix_nesting, "<TEXT><p>a<p>b</TEXT>", close_omitted=False)
    assert out == "<TEXT><p>a<p>b</TEXT>" and changes == []


def test_root_and_declaration():
    out, changes = run(repair.fix_root, "<DOC>a</DOC>\n<DOC>b</DOC>\n", mapped={"MD"})
    assert out == ('<?xml version="1.0" encoding="UTF-8"?><?corefio-entities MD?>'
                   "<corefio-root><DOC>a</DOC>\n<DOC>b</DOC>\n</corefio-root>")
    assert [c.message for c in changes] == ["added the XML declaration",
                                            "wrapped 2 top-level element(s) in <corefio-root>"]
    one, changes = run(repair.fix_root, '<?xml version="1.0"?>\n<r/>')
    assert one == '<?xml version="1.0"?>\n<r/>' and changes == []


# -- encodings ----------------------------------------------------------------------------------
def test_decode_utf8_untouched():
    assert repair.decode("é".encode()) == ("é", [])


def test_decode_detected_windows_1252():
    text, changes = repair.decode(b"ok\nna\xefve \x93q\x94")
    assert text == "ok\nnaïve “q”"
    assert where(changes) == [(2, 3)] and "Windows-1252" in changes[0].message


def test_decode_declared_encoding():
    data = '<?xml version="1.0" encoding="ISO-8859-1"?><a>é</a>'.encode("latin-1")
    text, changes = repair.decode(data)
    assert text == '<?xml version="1.0" encoding="UTF-8"?><a>é</a>'
    assert len(changes) == 2


def test_decode_utf16_with_bom():
    text, changes = repair.decode("<a>x</a>".encode("utf-16"))
    assert text == "<a>x</a>" and "UTF-16" in changes[0].message


# -- whole repairs ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["muc7.key.sgm", "muc6.key.sgm", "muc7.response.sgm", "muc6.response.sgm"])
def test_muc_samples_become_xml_with_the_same_character_data(name):
    data = (SAMPLES / "muc" / name).read_bytes()
    fixed, changes = repair.repair_bytes(data)
    text = fixed.decode("utf-8")
    assert parses(text)
    assert character_data(text) == character_data(data.decode("utf-8"))
    assert changes and all(c.line >= 1 and c.column >= 1 for c in changes)


def test_restore_gives_back_the_entities():
    data = (SAMPLES / "muc" / "muc7.key.sgm").read_text()
    fixed, _ = repair.repair_text(data)
    restored = repair.restore_sgml(fixed)
    assert "&MD;" in restored and "&amp;MD;" not in restored and "corefio-root" not in restored
    assert character_data(restored) == character_data(data)


def test_repair_is_idempotent():
    data = (SAMPLES / "muc" / "muc6.key.sgm").read_text()
    once, _ = repair.repair_text(data)
    twice, changes = repair.repair_text(once)
    assert twice == once and changes == []


def test_repair_bytes_kind_checks():
    with pytest.raises(FormatError):
        repair.repair_bytes(b"<a/>", kind="muc")
    with pytest.raises(ValueError):
        repair.repair_bytes(b"<a/>", kind="html")
    assert repair.sniff_kind(b"\n<DOC>\n") == "muc" and repair.sniff_kind(b"<raf/>") == "xml"


# -- repair_file (what `corefio repair` runs) ------------------------------------------------
def test_repair_file_writes_output_and_report(tmp_path):
    src = tmp_path / "in.sgm"
    src.write_bytes(b"<DOC><TEXT><p>a &MD; b</TEXT></DOC>\n<DOC>x</DOC>")
    out, rep = tmp_path / "out.xml", tmp_path / "repair.json"
    report = repair.repair_file(src, out, report_path=rep)
    assert parses(out.read_text())
    codes = report.codes()
    assert {"repair.root", "repair.entities", "repair.nesting"} <= codes
    saved = json.loads(rep.read_text())
    assert saved["input"] == str(src) and len(saved["changes"]) == len(report)
    assert {"fixer", "line", "column", "message"} == set(saved["changes"][0])


def test_repair_file_strict_refuses_and_writes_nothing(tmp_path):
    src = tmp_path / "in.sgm"
    src.write_text("<DOC><p>a</DOC>")
    out = tmp_path / "out.xml"
    with pytest.raises(StrictModeError) as info:
        repair.repair_file(src, out, strict=True)
    assert info.value.exit_code == 5 and info.value.line == 1 and not out.exists()


def test_repair_file_strict_accepts_well_formed(tmp_path):
    src = tmp_path / "in.xml"
    src.write_text('<?xml version="1.0" encoding="UTF-8"?><a>x</a>')
    report = repair.repair_file(src, tmp_path / "out.xml", strict=True)
    assert len(report) == 0 and (tmp_path / "out.xml").read_text() == src.read_text()


def test_repair_file_errors_have_exit_codes(tmp_path):
    with pytest.raises(FormatError) as missing:
        repair.repair_file(tmp_path / "nope.sgm", tmp_path / "out.xml")
    assert missing.value.exit_code == 3
    src = tmp_path / "in.sgm"
    src.write_text("<a>x</a>")
    with pytest.raises(OutputError) as bad:
        repair.repair_file(src, tmp_path / "no" / "such" / "dir" / "out.xml")
    assert bad.value.exit_code == 6
    with pytest.raises(OutputError):
        repair.repair_file(src, src)


# -- the guarantee: character data survives any damage ------------------------------------------
NAMES = ["a", "b", "p", "COREF", "s"]
WORDS = st.sampled_from(["word", "x y", "\n", " ", "&amp;", "&lt;", "&MD;", "&Cx17;", "&#233;", "q'\"", ">"])


@st.composite
def element(draw, depth=0):
    name = draw(st.sampled_from(NAMES))
    attrs = draw(st.lists(st.tuples(st.sampled_from(["ID", "REF", "min", "cat"]),
                                    st.from_regex(r"[A-Za-z0-9.-]{1,4}", fullmatch=True)),
                          max_size=3, unique_by=lambda a: a[0]))
    parts: list = []
    for _ in range(draw(st.integers(0, 3))):
        if depth < 3 and draw(st.booleans()):
            parts.append(draw(element(depth + 1)))
        else:
            parts.append(("text", draw(WORDS)))
    return ("el", name, attrs, parts)


def pieces(node, out: list) -> list:
    """Serialise to a list of pieces: ("start", name, attrs) / ("end", name) / ("text", s)."""
    if node[0] == "text":
        out.append(node)
        return out
    _, name, attrs, parts = node
    out.append(["start", name, [list(a) for a in attrs], True])
    for p in parts:
        pieces(p, out)
    out.append(["end", name])
    return out


def serialise(items: list) -> str:
    out = []
    for p in items:
        if p[0] == "text":
            out.append(p[1])
        elif p[0] == "start":
            quote = '"' if p[3] else ""
            out.append("<" + p[1] + "".join(f" {k}" if v is None else f" {k}={quote}{v}{quote}"
                                             for k, v in p[2]) + ">")
        else:
            out.append(f"</{p[1]}>")
    return "".join(out)


DAMAGE = st.sampled_from(["unquote", "drop-end", "swap-ends", "stray-end", "stray-amp", "stray-lt",
                          "attr-case", "end-case", "no-value", "dup-attr"])


@campaign(1000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(element(), min_size=1, max_size=3), st.lists(st.tuples(DAMAGE, st.integers(0, 10**6)), max_size=6),
       st.booleans(), st.sampled_from(["map", "declare"]))
def test_repair_keeps_character_data_of_damaged_files(tops, damage, declare, entities):
    items: list = []
    for top in tops:
        pieces(top, items)
        items.append(("text", "\n"))
    for kind, at in damage:
        starts = [i for i, p in enumerate(items) if p[0] == "start"]
        ends = [i for i, p in enumerate(items) if p[0] == "end"]
        texts = [i for i, p in enumerate(items) if p[0] == "text"]
        if kind == "unquote" and starts:
            items[starts[at % len(starts)]][3] = False
        elif kind == "drop-end" and ends:
            del items[ends[at % len(ends)]]
        elif kind == "swap-ends" and len(ends) > 1:
            i, j = ends[at % (len(ends) - 1)], ends[at % (len(ends) - 1) + 1]
            items[i], items[j] = items[j], items[i]
        elif kind == "stray-end":
            items.insert(at % (len(items) + 1), ["end", NAMES[at % len(NAMES)]])
        elif kind in ("stray-amp", "stray-lt") and texts:
            i = texts[at % len(texts)]
            items[i] = ("text", items[i][1] + (" & " if kind == "stray-amp" else " < "))
        elif kind == "attr-case" and starts:
            attrs = items[starts[at % len(starts)]][2]
            if attrs:
                attrs[0][0] = attrs[0][0].swapcase()
        elif kind == "end-case" and ends:
            i = ends[at % len(ends)]
            items[i] = ["end", items[i][1].swapcase()]
        elif kind == "no-value" and starts:
            items[starts[at % len(starts)]][2].append(["flag", None])
        elif kind == "dup-attr" and starts:
            attrs = items[starts[at % len(starts)]][2]
            if attrs:
                attrs.append(list(attrs[0]))
    text = serialise(items)
    if declare:
        text = '<?xml version="1.0" encoding="UTF-8"?>' + text
    fixed, changes = repair.repair_text(text, entities=entities)
    assert character_data(fixed) == character_data(text)
    assert parses(fixed), fixed
    again, more = repair.repair_text(fixed, entities=entities)
    assert more == [] and again == fixed


def test_deep_and_long_inputs_are_handled_without_recursion():
    deep = "<a>" * 20000 + "x" + "</a>" * 20000
    fixed, changes = repair.repair_text(deep)
    assert [c.fixer for c in changes] == ["root"] and fixed.endswith(deep)
    crossed = "<a><b>x" * 3000 + "</a></b>" * 3000
    fixed, changes = repair.repair_text(crossed)
    assert character_data(fixed) == "x" * 3000 and repair.repair_text(fixed)[1] == []
    small = "<a><b>x" * 60 + "</a></b>" * 60  # lxml refuses more than 256 levels
    assert parses(repair.repair_text(small)[0])


# -- fuzzer regressions (tests/data/regressions/fuzz/) --------------------------------------------
def test_decode_refuses_bytes_that_contradict_their_bom():
    """muc-exception-read-5fdc1a3f.sgm, muc-exception-read-d4bc87ec.sgm: a UnicodeDecodeError
    escaped from decode; now a FormatError at the line and column of the first bad byte."""
    import codecs

    from .conftest import DATA

    fuzz = DATA / "regressions" / "fuzz"
    for name in ("muc-exception-read-5fdc1a3f.sgm", "muc-exception-read-d4bc87ec.sgm"):
        with pytest.raises(FormatError, match="byte order mark says UTF-16"):
            repair.decode((fuzz / name).read_bytes())
    with pytest.raises(FormatError, match="says UTF-8") as caught:
        repair.decode(b"\xef\xbb\xbf\xef")
    assert (caught.value.line, caught.value.column) == (1, 1)
    with pytest.raises(FormatError, match="says UTF-16") as caught:
        repair.decode("<a>\nbc".encode("utf-16-be").join([b"\xfe\xff", b"\x00"]))  # odd length
    assert (caught.value.line, caught.value.column) == (2, 3)
    with pytest.raises(FormatError):
        repair.decode(codecs.BOM_UTF16_LE + "x".encode("utf-16-le") + b"\x00\xd8")  # lone surrogate
    with pytest.raises(FormatError):
        repair.repair_bytes(b"\xef\xbb\xbf<DOC>\xff</DOC>")


def test_decode_ignores_declared_encodings_that_give_no_text():
    for enc, data in (("base64", b"<a/>"), ("rot13", b"<a/>"), ("utf-7", b"<a>+2AA-</a>")):
        text, _ = repair.decode(f'<?xml version="1.0" encoding="{enc}"?>'.encode() + data)
        assert not any(0xD800 <= ord(c) <= 0xDFFF for c in text)
        text.encode("utf-8")


def test_character_references_xml_cannot_hold_are_kept_as_text():
    """muc-roundtrip-write-935bc3fa.sgm: &#xD800; decoded to a lone surrogate."""
    assert repair.decode_entities("&#xD800;&#0;&#x110000;&#99999999999999999999;&#65;&#x1F600;") == \
        "&#xD800;&#0;&#x110000;&#99999999999999999999;A\U0001F600"
    assert character_data("a&#xDFFF;b") == "a&#xDFFF;b"
    source = '<a x="&#xD800;">&#xD800; &#1; &#9;</a>'
    fixed, changes = repair.repair_text(source)
    assert fixed.endswith('<a x="&amp;#xD800;">&amp;#xD800; &amp;#1; &#9;</a>')
    assert [c.fixer for c in changes].count("entities") == 3
    assert character_data(fixed) == character_data(source)
    etree.fromstring(fixed.encode("utf-8"))
